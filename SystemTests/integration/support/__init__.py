"""What the system tests share, by concern: `tern` (the CLI under test and the repository's paths), `servers` (the test
mail servers' environment and ports), `accounts`, `imap` (another client's view of a mailbox, and the folder layouts),
`messages` (mail to plant), `waiting`, `web` (`tern serve` and its sign-in) and `browser` (Chromium, axe and the
sanitizer's vectors). Fixtures are in conftest.py. A test module imports from here, never from another test module."""
