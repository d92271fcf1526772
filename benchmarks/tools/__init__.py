"""Judge-free utilities: a snapshot of what `judge verify` decides, to compare two versions of
the code; the modules one request passes through; a counting proxy; a stand-in judge replica."""
