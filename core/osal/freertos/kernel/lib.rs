// Empty: the manifest exists to fetch the kernel sources (see Cargo.toml).
