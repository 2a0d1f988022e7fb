"""The worker process: settings, the Temporal connection, the installation id, logging, and the worker itself."""
