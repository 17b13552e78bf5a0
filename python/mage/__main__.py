from mage.cli import main

main()
