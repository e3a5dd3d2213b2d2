package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Rule;
import dev.sluice.core.rules.RulesFile;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchRuleTest {

  @Test
  void rulesYaml_everyRule_readsBackAsTheSameRules() {
    List<Rule> read = RulesFile.parse("rules.yaml", BenchRule.rulesYaml(BenchRule.ALL));

    assertThat(read)
        .containsExactlyElementsOf(BenchRule.ALL.stream().map(BenchRule::rule).toList());
  }

  @Test
  void describe_saysAlgorithmLimitWindowAndBurst() {
    assertThat(BenchRule.HOT.describe()).isEqualTo("`hot` = sliding_window 1,000/1s");
    assertThat(BenchRule.HOT_TOKEN_BUCKET.describe())
        .isEqualTo("`hot-tb` = token_bucket 1,000/1s, burst 1,000");
  }
}
