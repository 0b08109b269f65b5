"""Marker displays: gpiozero LEDs, the serial peg driver, the console, a recorder for tests."""
