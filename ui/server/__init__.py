"""What every server shares: HTTP settings, process settings, the credential throttle, metrics, logs."""
