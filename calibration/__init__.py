"""Camera and board calibration: markers, board geometry, colour profiles."""
