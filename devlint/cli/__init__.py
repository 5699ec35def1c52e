"""The command line and its faces: config, discovery, cache, workers, outputs, fixes, docs."""
