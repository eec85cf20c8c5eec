"""The API, as both ports serve it: the thin gRPC ``servicer``, ``requests`` (each request
parsed into a typed input), the ``handlers``, ``calls`` (each method as both ports run it,
the expensive ones on a bounded pool in ``expensive``), ``views``, ``conversions``,
``errors`` and the ``observer`` the server fills with metrics. The server itself (config,
start-up, the interceptor, the ports, ``callstats``) is ``studengine.server``."""
