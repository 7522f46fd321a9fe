import { describe, expect, it } from "vitest";
import { clientKeyOf, siteKeyOf } from "./client-address";

describe("clientKeyOf: the key one client is counted under", () => {
  it("keeps an IPv4 address, also when the socket reports it IPv4-mapped", () => {
    expect(clientKeyOf("203.0.113.7")).toBe("203.0.113.7");
    expect(clientKeyOf("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientKeyOf("::ffff:cb00:7107")).toBe("203.0.113.7");
  });

  it("counts an IPv6 address by its /64, however it is written", () => {
    expect(clientKeyOf("2001:db8:5:6::1")).toBe("2001:db8:5:6::/64");
    expect(clientKeyOf("2001:0db8:0005:0006:ffff:1:2:3")).toBe("2001:db8:5:6::/64");
    expect(clientKeyOf("2001:DB8:5:6:a::b")).toBe("2001:db8:5:6::/64");
    expect(clientKeyOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientKeyOf("::1")).toBe("0:0:0:0::/64");
    expect(clientKeyOf("2001:db8:5:7::1")).not.toBe(clientKeyOf("2001:db8:5:6::1"));
  });

  it("puts anything that is not an address under one shared key", () => {
    expect(clientKeyOf(undefined)).toBe("unknown");
    expect(clientKeyOf("")).toBe("unknown");
    expect(clientKeyOf("not-an-ip")).toBe("unknown");
  });
});

describe("siteKeyOf: the /48 an IPv6 client is also counted under", () => {
  it("is the first three groups of an IPv6 address, however it is written", () => {
    expect(siteKeyOf("2001:db8:5:6::1")).toBe("2001:db8:5::/48");
    expect(siteKeyOf("2001:0DB8:0005:ffff:1:2:3:4")).toBe("2001:db8:5::/48");
    expect(siteKeyOf("2001:db8:5:7::1")).toBe(siteKeyOf("2001:db8:5:6::1"));
    expect(siteKeyOf("2001:db8:6::1")).not.toBe(siteKeyOf("2001:db8:5::1"));
  });

  it("is null for IPv4, IPv4-mapped and anything that is not an address", () => {
    expect(siteKeyOf("203.0.113.7")).toBeNull();
    expect(siteKeyOf("::ffff:203.0.113.7")).toBeNull();
    expect(siteKeyOf(undefined)).toBeNull();
    expect(siteKeyOf("not-an-ip")).toBeNull();
  });
});
