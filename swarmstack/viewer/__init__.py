"""Watch runs in a browser: the recording a run writes, the local server and page that replay
it (or show a run live), and pictures and videos of runs rendered by headless Chromium."""
