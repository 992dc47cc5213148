{
  description = "content-backlink-service: websites, articles and backlinks over HTTP/JSON, MCP and web pages";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-25.11";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forSystems = list: f: nixpkgs.lib.genAttrs list (system: f nixpkgs.legacyPackages.${system});
      forAll = forSystems systems;

      # package-lock.json is written without `resolved` URLs (npm's omit-lockfile-registry-resolved), and Nix
      # fetches each package by its URL and the lock's integrity hash: every entry gets the npm registry's tarball
      # address back from its name and version. Nothing else of the lock changes, so the versions are exactly the
      # locked ones.
      lockWithUrls = lib: lock:
        lock // {
          packages = lib.mapAttrs
            (path: entry:
              let
                name = entry.name or (lib.last (lib.splitString "node_modules/" path));
                file = lib.last (lib.splitString "/" name);
              in
              if path == "" || entry ? resolved || entry.link or false || !(entry ? version) then entry
              else entry // { resolved = "https://registry.npmjs.org/${name}/-/${file}-${entry.version}.tgz"; })
            lock.packages;
        };

      # The service's npm package, its dependencies taken from package-lock.json (importNpmLock: no hash to keep
      # in step). There is no build step: `cbs` runs the TypeScript sources through tsx.
      servicePackage = pkgs: args:
        pkgs.buildNpmPackage ({
          pname = "content-backlink-service";
          version = (pkgs.lib.importJSON ./package.json).version;
          src = ./.;
          nodejs = pkgs.nodejs_22;
          npmDeps = pkgs.importNpmLock {
            npmRoot = ./.;
            packageLock = lockWithUrls pkgs.lib (pkgs.lib.importJSON ./package-lock.json);
          };
          npmConfigHook = pkgs.importNpmLock.npmConfigHook;
          dontNpmBuild = true;
          meta.mainProgram = "cbs";
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
        { default = { type = "app"; program = "${serve}/bin/content-backlink-service"; }; });

      # `nix develop`: Node.js 22 (the current LTS) and PostgreSQL, for `npm test` with or without DATABASE_URL.
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_22 pkgs.postgresql pkgs.curl pkgs.jq ];
        };
      });

      # `nix flake check`: typecheck, lint and the test suite on the embedded database (browser tests are skipped:
      # there is no Chromium in the build sandbox). Linux only: the lock holds the linter's and the test runner's
      # native binaries for Linux alone.
      checks = forSystems [ "x86_64-linux" "aarch64-linux" ] (pkgs: {
        default = servicePackage pkgs {
          pname = "content-backlink-service-tests";
          buildPhase = ''
            runHook preBuild
            export HOME="$TMPDIR"
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
