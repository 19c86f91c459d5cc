from wirecheck.cli.app import main

main()
