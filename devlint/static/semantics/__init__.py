"""What library calls do to devices: one module per subject, one handler per call.

The data is `devlint.core.torch_catalogue` (shared with the runtime checker); `registry` looks a
call's handler up by dotted path or by receiver kind and method name; each
handler is given one `CallSite`. Importing this package imports nothing else.
"""
