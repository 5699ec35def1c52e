from devlint.cli.command import main

main()
