package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FrontEndTest {

  @Test
  void served_pastMaxCommands_countsUnderOther() {
    FrontEnd resp = new FrontEnds().register("resp", "127.0.0.1:6380");
    for (int i = 0; i < FrontEnd.MAX_COMMANDS + 10; i++) {
      resp.served("CMD" + i);
    }

    FrontEndTotals totals = resp.totals();

    assertThat(totals.commands()).hasSize(FrontEnd.MAX_COMMANDS + 1);
    assertThat(totals.commands())
        .filteredOn(c -> c.command().equals(FrontEnd.OTHER))
        .singleElement()
        .extracting(CommandTotals::requests)
        .isEqualTo(10L);
  }

  @Test
  void totals_connectionsReported_areReadAtEachSnapshot() {
    FrontEnds frontEnds = new FrontEnds();
    FrontEnd resp = frontEnds.register("resp", "127.0.0.1:6380");
    long[] open = {3};
    resp.connections(() -> open[0]);

    open[0] = 5;

    assertThat(frontEnds.totals().get(0).connections()).isEqualTo(5);
    assertThat(frontEnds.register("resp", "elsewhere")).isSameAs(resp);
  }
}
