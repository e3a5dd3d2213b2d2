package dev.sluice.bench.load;

import dev.sluice.bench.Usage;
import io.javalin.Javalin;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The HTTP ceiling: a bare Javalin endpoint at {@code POST /v1/check} that does no work and answers
 * with exactly the body and headers a Sluice grid node sent for one check (captured by the harness
 * and passed in), so the two differ only in the work Sluice does.
 *
 * <p>Run by the harness ({@link Servers}) as
 *
 * <pre>
 * java &lt;server flags&gt; -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.sluice.bench.load.CeilingServer &lt;port&gt; &lt;base64 body&gt; [&lt;header&gt;=&lt;value&gt; ...]
 * </pre>
 */
public final class CeilingServer {
  static final String USAGE =
      """
      java <server flags> -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \\
        dev.sluice.bench.load.CeilingServer <port> <base64 body> [<header>=<value> ...]
      """;

  private CeilingServer() {}

  public static void main(String[] args) {
    if (Usage.printed(args, USAGE)) {
      return;
    }
    if (args.length < 2) {
      System.err.println("usage: CeilingServer <port> <base64 body> [<header>=<value> ...]");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    byte[] body = Base64.getDecoder().decode(args[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 2; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      headers.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    Javalin app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              config.jetty.host = "127.0.0.1";
              config.jetty.port = port;
              config.routes.post(
                  "/v1/check",
                  ctx -> {
                    headers.forEach(ctx::header);
                    ctx.status(200).contentType("application/json").result(body);
                  });
            });
    Runtime.getRuntime().addShutdownHook(new Thread(app::stop, "stop-ceiling"));
    app.start();
    System.out.println(
        "READY ceiling on " + port + ", body " + new String(body, StandardCharsets.UTF_8));
  }
}
