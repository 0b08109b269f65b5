"""Frame sources and recognition: the board, the dames, the dice, the jetons and fichets."""
