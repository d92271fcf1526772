"""What a person reads: the terminal table and the self-contained HTML report."""
