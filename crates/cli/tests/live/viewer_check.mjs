// Loads passerby's bundled viewer in headless Chromium (Debian's package, driven by
// playwright-core) and reports what it shows: the page's message counts, how many pixels of
// the 3D canvas and of the camera canvas are drawn, whether Pause then Step moves time by one
// step, and any error the page raised. Writes a screenshot.
//   node viewer_check.mjs URL SCREENSHOT.png
import { chromium } from "playwright-core";

const [url, screenshot] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 640 } });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(url);
  await page.waitForFunction(
    () => window.passerbyStats && passerbyStats.clouds > 3 && passerbyStats.images > 0 && passerbyStats.markers > 0,
    null,
    { timeout: 45_000 },
  );
  await page.waitForTimeout(700);
  const pixels = await page.evaluate(() => {
    const count = (id, drawn) => {
      const c = document.getElementById(id);
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (drawn(d[i], d[i + 1], d[i + 2])) n++;
      return n;
    };
    // Scene pixels far from the background colour #15171a (the grid is close to it).
    const scene = count("scene", (r, g, b) => Math.abs(r - 0x15) + Math.abs(g - 0x17) + Math.abs(b - 0x1a) > 60);
    const image = count("image", (r, g, b) => r + g + b > 30);
    return { scene, image };
  });
  await page.screenshot({ path: screenshot });
  // Pause, then one step: the server's time moves by one step.
  await page.click("#pause");
  // Paused once the clock holds still (what was published before the pause arrives first).
  let paused = -1;
  for (let tries = 0; tries < 50; tries++) {
    await page.waitForTimeout(200);
    const now = await page.evaluate(() => passerbyStats.time);
    if (now === paused) break;
    paused = now;
  }
  await page.click("#step");
  await page.waitForFunction((t) => passerbyStats.time > t, paused, { timeout: 10_000 });
  const stepped = await page.evaluate(() => passerbyStats.time);
  const stats = await page.evaluate(() => window.passerbyStats);
  console.log(JSON.stringify({ stats, pixels, step: stepped - paused, errors }));
} finally {
  await browser.close();
}
