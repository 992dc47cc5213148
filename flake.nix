{
  description = "content-backlink-service: websites, articles and backlinks over HTTP/JSON, MCP and web pages";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  outputs = { self, nixpkgs }:
    let
      inherit (nixpkgs) lib;
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forSystems = list: f: lib.genAttrs list (system: f nixpkgs.legacyPackages.${system});
      forAll = forSystems systems;
      package = lib.importJSON ./package.json;

      # What npm compares with a package's `os`, `cpu` and `libc` fields, on each system (nixpkgs links with glibc).
      npmPlatforms = {
        x86_64-linux = { os = "linux"; cpu = "x64"; libc = "glibc"; };
        aarch64-linux = { os = "linux"; cpu = "arm64"; libc = "glibc"; };
        x86_64-darwin = { os = "darwin"; cpu = "x64"; libc = null; };
        aarch64-darwin = { os = "darwin"; cpu = "arm64"; libc = null; };
      };

      # Whether a lock entry's `os`, `cpu` or `libc` list admits `value`, as npm reads them: absent admits anything,
      # and a list of negations ("!win32") admits what it does not name. A `libc` list admits no system without one.
      admits = list: value:
        list == null
        || (value != null
          && (builtins.elem value list
            || (builtins.all (lib.hasPrefix "!") list && !(builtins.elem "!${value}" list))));

      # package-lock.json as Nix reads it on `system`:
      # - The lock is written without `resolved` URLs (npm's omit-lockfile-registry-resolved), and Nix fetches each
      #   package by its URL and the lock's integrity hash: every entry gets the npm registry's tarball address back
      #   from its name and version.
      # - Optional packages built for another platform (the linter's, the bundler's and the test runner's binaries for
      #   macOS, Windows, musl…) are left out: npm skips them on this system anyway, and a missing optional package is
      #   no error to `npm install`. Each system still gets its own.
      # Nothing else of the lock changes, so the versions are exactly the locked ones.
      lockFor = system:
        let
          lock = lib.importJSON ./package-lock.json;
          platform = npmPlatforms.${system};
          forThisSystem = _: entry:
            !(entry.optional or false)
            || (admits (entry.os or null) platform.os
              && admits (entry.cpu or null) platform.cpu
              && admits (entry.libc or null) platform.libc);
          withUrl = path: entry:
            let
              name = entry.name or (lib.last (lib.splitString "node_modules/" path));
              file = lib.last (lib.splitString "/" name);
            in
            if path == "" || entry ? resolved || entry.link or false || !(entry ? version) then entry
            else entry // { resolved = "https://registry.npmjs.org/${name}/-/${file}-${entry.version}.tgz"; };
        in
        lock // { packages = lib.mapAttrs withUrl (lib.filterAttrs forThisSystem lock.packages); };

      # The service's npm package, its dependencies taken from package-lock.json (importNpmLock: no hash to keep in
      # step). Its build phase is `npm run build` (scripts/build.js): the program bundled into dist/, and the migrated
      # embedded database that every new data directory starts as a copy of.
      servicePackage = pkgs: args:
        pkgs.buildNpmPackage ({
          pname = "content-backlink-service";
          inherit (package) version;
          src = ./.;
          nodejs = pkgs.nodejs_22;
          npmDeps = pkgs.importNpmLock {
            npmRoot = ./.;
            packageLock = lockFor pkgs.stdenv.hostPlatform.system;
          };
          npmConfigHook = pkgs.importNpmLock.npmConfigHook;
          # `npm pack` (which lists the files to install) would run the `prepare` script, the build, a second time.
          npmPackFlags = [ "--ignore-scripts" ];
          # npm pack leaves out empty directories, and PostgreSQL needs those of the database template.
          postInstall = ''
            cp -rT dist/embedded-template "$out/lib/node_modules/${package.name}/dist/embedded-template"
          '';
          meta = {
            # nixpkgs' descriptions end without a period.
            description = lib.removeSuffix "." package.description;
            # Proprietary (as openapi.json says): nixpkgs builds it only where unfree packages are allowed.
            license = lib.licenses.unfree;
            mainProgram = "cbs";
          };
        } // args);
    in
    {
      # `nix build`: the package, with `bin/cbs`.
      packages = forAll (pkgs: { default = servicePackage pkgs { }; });

      # `nix run . -- [DIR] [cbs serve options]`: serves with the embedded database and uploaded media in DIR
      # (default: $DATA_DIR, else ./.data); DATABASE_URL, PORT and the other settings are read as usual.
      apps = forAll (pkgs:
        let
          serve = pkgs.writeShellApplication {
            name = "content-backlink-service";
            runtimeInputs = [ self.packages.${pkgs.stdenv.hostPlatform.system}.default ];
            text = ''
              data_dir="''${DATA_DIR:-./.data}"
              if [ "$#" -gt 0 ] && [ "''${1#-}" = "$1" ]; then
                data_dir="$1"
                shift
              fi
              mkdir -p "$data_dir"
              export DATA_DIR="$data_dir"
              exec cbs serve "$@"
            '';
          };
        in
        {
          default = {
            type = "app";
            program = "${serve}/bin/content-backlink-service";
            meta.description = "cbs serve, with the embedded database and media in ./.data, $DATA_DIR or the given directory";
          };
        });

      # `nix develop`: Node.js 22 (the current LTS) and PostgreSQL, for `npm test` with or without DATABASE_URL.
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_22 pkgs.postgresql pkgs.curl pkgs.jq ];
        };
      });

      # `nix flake check`: the build, typecheck, lint and the test suite on the embedded database (browser tests are
      # skipped: there is no Chromium in the build sandbox). Linux only: the linter is a prebuilt binary, which
      # autoPatchelf (for Linux programs) makes start in the sandbox.
      checks = forSystems [ "x86_64-linux" "aarch64-linux" ] (pkgs: {
        default = servicePackage pkgs {
          pname = "content-backlink-service-checks";
          # curl: the README's API examples, which a test runs against a fresh `npm start`.
          nativeBuildInputs = [ pkgs.autoPatchelfHook pkgs.curl ];
          # libgcc_s, which the linter's binary needs besides glibc.
          buildInputs = [ pkgs.stdenv.cc.cc.lib ];
          buildPhase = ''
            runHook preBuild
            # Some versions of importNpmLock's configure hook leave package.json and package-lock.json rewritten
            # (store paths, on one line) until install; the linter and the tests read the project's own.
            if [ -f .package.json.orig ]; then cp .package.json.orig package.json; fi
            if [ -f .package-lock.json.orig ]; then cp .package-lock.json.orig package-lock.json; fi
            autoPatchelf node_modules/@biomejs
            npm run build
            npm run typecheck
            npm run lint
            env -u DATABASE_URL npm test
            runHook postBuild
          '';
          installPhase = ''
            touch "$out"
          '';
        };
      });
    };
}
