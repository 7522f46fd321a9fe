import { describe, expect, it } from "vitest";
import { cachedScrape, METRICS_CACHE_MS } from "./metrics";

describe("cachedScrape: the metrics text rendered at most once a second", () => {
  it("renders once for every request within a second, concurrent ones included, and again after it", async () => {
    let renders = 0;
    let t = 0;
    const scrape = cachedScrape({ text: async () => `render ${++renders}`, contentType: () => "text/plain" }, METRICS_CACHE_MS, () => t);
    const texts = await Promise.all(Array.from({ length: 68 }, () => scrape.text()));
    expect(new Set(texts)).toEqual(new Set(["render 1"]));
    t = 999;
    expect(await scrape.text()).toBe("render 1");
    t = 1000;
    expect(await scrape.text()).toBe("render 2");
    expect(renders).toBe(2);
    expect(METRICS_CACHE_MS).toBeGreaterThanOrEqual(1000);
  });

  it("does not keep a rendering that failed", async () => {
    let fail = true;
    const scrape = cachedScrape(
      {
        text: async () => {
          if (fail) throw new Error("collector broke");
          return "ok";
        },
        contentType: () => "text/plain",
      },
      1000,
      () => 0,
    );
    await expect(scrape.text()).rejects.toThrow("collector broke");
    fail = false;
    expect(await scrape.text()).toBe("ok");
  });
});
