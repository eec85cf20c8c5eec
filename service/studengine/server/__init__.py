"""The process around the API: configuration, the supervisor and its worker processes,
logging, metrics and the call interceptor (``stud-server``)."""
