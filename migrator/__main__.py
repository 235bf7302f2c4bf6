from tfmigrate.cli import app

app(prog_name="tfmigrate")
