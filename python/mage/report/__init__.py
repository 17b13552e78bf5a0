"""Reports built from stored runs: plain tables now; HTML and figures build on the same rows."""
