"""Reports built from stored runs: terminal tables, findings in words, the HTML report, figures, Markdown."""
