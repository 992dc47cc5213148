{
  description = "content-backlink-service: websites, articles and backlinks over HTTP/JSON, MCP and web pages";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      # `nix develop`: Node.js 20 and a PostgreSQL 15 client and server for DATABASE_URL runs.
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_20 pkgs.postgresql_15 pkgs.curl pkgs.jq ];
        };
      });

      # `nix run`: installs the locked dependencies into the working copy if needed, then `npm start`
      # (embedded database in ./.data unless DATABASE_URL is set).
      apps = forAll (pkgs:
        let
          run = pkgs.writeShellApplication {
            name = "content-backlink-service";
            runtimeInputs = [ pkgs.nodejs_20 ];
            text = ''
              if [ ! -f package.json ]; then
                echo "run this from a checkout of content-backlink-service" >&2
                exit 1
              fi
              [ -d node_modules ] || npm ci --no-audit --no-fund
              exec npm start
            '';
          };
        in
        { default = { type = "app"; program = "${run}/bin/content-backlink-service"; }; });
    };
}
