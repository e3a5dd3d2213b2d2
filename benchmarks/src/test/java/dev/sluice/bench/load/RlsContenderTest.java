package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The Envoy config the run's grid node serves says the same limit as the REST rule. */
class RlsContenderTest {

  @Test
  void envoyYaml_benchRule_isOneDescriptorPerKeyAtTheRulesLimit() {
    assertThat(RlsContender.envoyYaml(BenchRule.BENCH))
        .isEqualTo(
            String.format(
                "domain: bench%ndescriptors:%n  - key: key%n    rate_limit:%n      unit: second%n"
                    + "      requests_per_unit: 1000000%n"));
  }

  @Test
  void envoyYaml_ruleTheFormatCannotSay_isRefused() {
    assertThatThrownBy(() -> RlsContender.envoyYaml(BenchRule.HOT_TOKEN_BUCKET))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token_bucket");
  }

  @Test
  void request_carriesTheKeyAsTheDescriptorValue() {
    var request = RlsContender.request("k42");

    assertThat(request.getDomain()).isEqualTo("bench");
    assertThat(request.getDescriptors(0).getEntries(0).getKey()).isEqualTo("key");
    assertThat(request.getDescriptors(0).getEntries(0).getValue()).isEqualTo("k42");
  }
}
