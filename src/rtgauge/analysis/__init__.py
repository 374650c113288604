"""Analysis of stored runs: deadlines, comparisons, ratings."""
