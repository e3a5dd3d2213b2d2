package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class BenchSettingsTest {

  @Test
  void parse_quick_reportsUnderTargetWithShortRounds() {
    BenchSettings s = BenchSettings.parse(new String[] {"--quick", "--only", "s3,S7"}, "cmd");

    assertThat(s.quick()).isTrue();
    assertThat(s.doc()).isEqualTo(Path.of("benchmarks", "target", "benchmarks-quick.md"));
    assertThat(s.round().toMillis()).isLessThan(1_000);
    assertThat(s.wanted("S3")).isTrue();
    assertThat(s.wanted("S7")).isTrue();
    assertThat(s.wanted("S1")).isFalse();
  }

  @Test
  void parse_full_publishesToDocs() {
    BenchSettings s = BenchSettings.parse(new String[0], "benchmarks/run.sh");

    assertThat(s.quick()).isFalse();
    assertThat(s.doc()).isEqualTo(Path.of("docs", "benchmarks.md"));
    assertThat(s.images()).isEqualTo(Path.of("docs", "img"));
    assertThat(s.rounds()).isEqualTo(5);
    assertThat(s.wanted("S6")).isTrue();
  }

  @Test
  void parse_onlySomeScenarios_reportsUnderTargetSoDocsKeepTheOthers() {
    BenchSettings s = BenchSettings.parse(new String[] {"--only", "S8"}, "cmd");

    assertThat(s.quick()).isFalse();
    assertThat(s.doc()).isEqualTo(Path.of("benchmarks", "target", "benchmarks-only.md"));
    assertThat(s.images()).isEqualTo(Path.of("benchmarks", "target", "img"));
    assertThat(s.wanted("S8")).isTrue();
    assertThat(s.wanted("S5")).isFalse();
  }

  @Test
  void parse_onlyWithDoc_writesWhereTold() {
    BenchSettings s =
        BenchSettings.parse(new String[] {"--only", "S8", "--doc", "docs/benchmarks.md"}, "cmd");

    assertThat(s.doc()).isEqualTo(Path.of("docs", "benchmarks.md"));
  }

  @Test
  void parse_unknownOrIncomplete_isRefused() {
    assertThatThrownBy(() -> BenchSettings.parse(new String[] {"--fast"}, "c"))
        .hasMessageContaining("unknown argument --fast");
    assertThatThrownBy(() -> BenchSettings.parse(new String[] {"--doc"}, "c"))
        .hasMessageContaining("--doc needs a value");
  }
}
