package dev.sluice.bench.load;

import dev.sluice.bench.load.Bucket4jContender.Mode;
import java.util.ArrayList;
import java.util.List;

/** S2: Sluice's client against Bucket4j's client and Redis + Lua, 16 threads, uniform keys. */
final class ClientScenario implements Scenario {
  @Override
  public String id() {
    return "S2";
  }

  @Override
  public void run(BenchContext context) {
    BenchRule rule = BenchRule.BENCH;
    Workload load = context.settings().workload(16, KeySpace.uniform("k", 10_000));
    ScenarioResult s =
        new ScenarioResult(
            "S2",
            "Client: Sluice client vs Bucket4j client vs Redis + Lua",
            "16 threads in the load JVM, each a synchronous decision through a client to a server in"
                + " its own process on 127.0.0.1 (Sluice: `sluice-node.jar`; Bucket4j: a member"
                + " configured like it; Redis: redis-server with the Lua sliding window via"
                + " Lettuce), "
                + load.keys().description()
                + ", rule "
                + rule.describe()
                + ".");
    List<ContenderSpec> contenders = new ArrayList<>();
    // Uniform keys at a few requests a second each: steady keys, answered from leases to the end
    // of their window (on by default). Bucket4j's `delaying` answers locally too: beside it, the
    // comparison is like for like.
    contenders.add(Contenders.sluiceClient(true));
    contenders.add(Contenders.sluiceClient(false));
    if (Boolean.getBoolean("bench.diagnostics")) {
      // -Dbench.diagnostics=true: Sluice's client without per-key coalescing, to see what the
      // coalescer costs or gains. Not in the targets; the published run leaves it out.
      contenders.add(
          Contenders.sluiceClient("Sluice client (no coalescing)", b -> b.coalescing(false)));
    }
    contenders.add(Contenders.bucket4jClient(Mode.PLAIN));
    contenders.add(Contenders.bucket4jClient(Mode.DELAYING));
    contenders.add(Contenders.redisLua());
    Measurement.run(context, s, load, rule, contenders);
    context.report().scenario(s);
  }
}
