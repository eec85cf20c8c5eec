"""Python clients of the Stud Engine service, over the public API (``stud_api``) only: the
``stud-play`` terminal table (``play``), bots (``bots``), the ``stud-load`` load generator
(``load``), the helpers they share (``client``) and one way to start a development
server for a session (``devserver``)."""
