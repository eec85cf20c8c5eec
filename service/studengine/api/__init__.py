"""The API, as both ports serve it: the thin gRPC servicer, the handlers, ``calls`` (each
method, the expensive ones on a bounded pool in ``expensive``), ``views``, ``conversions``,
``errors`` and the ``observer`` the server fills with metrics. The server itself (config,
start-up, interceptors, the ports) is ``studengine.server``."""
