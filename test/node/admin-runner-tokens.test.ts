import { describe, expect, it } from "vitest";
import { runnerTokensRequest } from "../../scripts/lib/runner-token-cli";

/** `npm run admin -- runner-tokens …`: each command as the admin route call it makes. */

describe("admin CLI: runner-tokens", () => {
  it("create sends the name, and the comma-separated lanes and workspaces as lists", () => {
    expect(runnerTokensRequest("create", [], { name: "gpu-1", lanes: "high, normal", workspaces: "wsp_a,wsp_b" })).toEqual({
      method: "POST",
      path: "/admin/v1/runner-tokens",
      body: { name: "gpu-1", lanes: ["high", "normal"], workspaces: ["wsp_a", "wsp_b"] },
    });
  });

  it("create without scopes mints an unscoped token", () => {
    expect(runnerTokensRequest("create", [], { name: "gpu-2" }).body).toEqual({ name: "gpu-2" });
  });

  it("create needs --name", () => {
    expect(() => runnerTokensRequest("create", [], {})).toThrow(/--name is required/);
  });

  it("an unknown lane is refused before any call", () => {
    expect(() => runnerTokensRequest("create", [], { name: "gpu-1", lanes: "high,urgent" })).toThrow(
      /--lanes takes low, normal, high; got urgent/,
    );
  });

  it("list reads every token", () => {
    expect(runnerTokensRequest("list", [], {})).toEqual({ method: "GET", path: "/admin/v1/runner-tokens" });
  });

  it("revoke names the token by its id", () => {
    expect(runnerTokensRequest("revoke", ["rnt_abc"], {})).toEqual({ method: "POST", path: "/admin/v1/runner-tokens/rnt_abc/revoke" });
    expect(() => runnerTokensRequest("revoke", [], {})).toThrow(/needs the token's id/);
    expect(() => runnerTokensRequest("revoke", ["mjr_secret"], {})).toThrow(/needs the token's id/);
  });
});
