"""The transports: the stdio server (control protocol and JSON-RPC) and its process."""
