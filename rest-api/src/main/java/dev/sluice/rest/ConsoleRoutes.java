package dev.sluice.rest;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The console's page and its two files, served from this jar: {@code GET /} and {@code GET
 * /console/{asset}}. Plain HTML, CSS and JavaScript with no third-party code, fonts or network
 * requests beyond this node's own API, so the console works offline and behind any proxy.
 *
 * <p>The page runs under a strict Content-Security-Policy (scripts and styles from this node only,
 * no inline script, no frames): key texts, rule names and error messages are data and are only ever
 * written into the page as text.
 */
final class ConsoleRoutes {
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
          + " img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private record Asset(String contentType, byte[] bytes) {}

  private final Asset page;
  private final Map<String, Asset> assets;

  ConsoleRoutes() {
    this.page = load("index.html", "text/html; charset=utf-8");
    this.assets =
        Map.of(
            "console.js", load("console.js", "text/javascript; charset=utf-8"),
            "console.css", load("console.css", "text/css; charset=utf-8"));
  }

  /** {@code GET /}. */
  void page(Context ctx) {
    serve(ctx, page);
  }

  /** {@code GET /console/{asset}}: 404 for anything but the page's own files. */
  void asset(Context ctx) {
    Asset asset = assets.get(ctx.pathParam("asset"));
    if (asset == null) {
      throw new ApiError(
          404,
          ApiError.NOT_FOUND,
          "no console file '" + ctx.pathParam("asset") + "'; the console is at GET /");
    }
    serve(ctx, asset);
  }

  private static void serve(Context ctx, Asset asset) {
    ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer")
        .header("Cache-Control", "no-cache")
        .contentType(asset.contentType())
        .result(asset.bytes());
  }

  private static Asset load(String name, String contentType) {
    try (InputStream in = ConsoleRoutes.class.getResourceAsStream("console/" + name)) {
      if (in == null) {
        throw new IllegalStateException("console/" + name + " is missing from the rest-api jar");
      }
      return new Asset(contentType, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
