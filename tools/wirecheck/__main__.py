if __name__ == "__main__":  # not when a spawned worker process imports it
    from wirecheck.cli import main

    main()
