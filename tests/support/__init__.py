"""What tests share: drivers, fakes and paths. Test modules import from here, never from each other."""
