"""Sample Python clients of the Stud Engine service: the ``stud-play`` terminal table
(``table``), bots (``bots``), the ``stud-load`` load generator (``load``) and the shared
helpers they use (``client``)."""
