package dev.sluice.bench.load;

import dev.sluice.bench.load.Bucket4jContender.Mode;
import java.util.List;

/**
 * S4: one key at 10 requests per second hammered by 16 threads; nearly every call is a denial, and
 * Sluice's client answers repeat denials locally. Its admissions are judged too.
 */
final class AttackScenario implements Scenario {
  @Override
  public String id() {
    return "S4";
  }

  @Override
  public void run(BenchContext context) {
    BenchRule rule = BenchRule.ATTACK;
    Workload load = context.settings().workload(16, KeySpace.hot("attacker")).countingExactness();
    ScenarioResult s =
        new ScenarioResult(
            "S4",
            "Attack: one key at 10 req/s hammered by 16 threads",
            "Rule "
                + rule.describe()
                + "; 16 threads call as fast as they can for one key, so nearly every call is a"
                + " denial. Sluice's client answers repeat denials from its denied-until cache"
                + " (no network hop); the peers ask the server every time.");
    Measurement.run(
        context,
        s,
        load,
        rule,
        List.of(
            Contenders.sluiceClient(),
            Contenders.bucket4jClient(Mode.PLAIN),
            Contenders.redisLua()));
    context.report().scenario(s);
  }
}
