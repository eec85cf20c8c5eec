"""The gRPC face of the engine: servicer, views, errors, interceptors, config and start-up."""
