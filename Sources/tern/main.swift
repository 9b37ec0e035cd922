import TernCLI

await TernCommand.runMain()
