from tfmigrate.main import main

main()
