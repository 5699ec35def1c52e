"""Static analysis: parse, interpret (analysis, semantics), rules, fixes, suppressions."""
