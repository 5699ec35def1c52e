"""The torch catalogue: one declarative record per torch API devlint knows.

`records.py` says what a record holds; `tensors.py`, `nn.py` and `cuda.py` hold the records;
`libraries.py` the tables about namespaces and other libraries; `views.py` derives from them the
tables the static analysis, the rules, the runtime checker and its simulated GPU read. It sits in
`core/` so that every layer may read it; it imports nothing from devlint outside this package.
"""
