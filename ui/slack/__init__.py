"""The Slack bot: Bolt app, transport-independent core, Block Kit rendering, threads and store."""
