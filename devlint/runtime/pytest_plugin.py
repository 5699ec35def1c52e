"""pytest plugin: placeholder until the runtime checker lands."""
