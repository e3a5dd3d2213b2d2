package dev.sluice.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.test.DebianPackages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console in a real browser (Debian's headless Chromium) against a real three-member grid under
 * bounded load: the page shows the merged rates and they move, the hammered key is among the
 * limited keys (masked without the admin token, shown with it), a wrong token is refused, a rule
 * edited through the page takes effect (with a refused value's error shown next to its field), and
 * the browser reports no error of its own.
 *
 * <p>Screenshots go to {@code target/console-screenshots}, or to the directory named by {@code
 * -Dsluice.console.screenshots} (docs/img for the README's: {@code ./mvnw -pl grid-node -am verify
 * -Dtest=ConsoleBrowserTest -Dsurefire.failIfNoSpecifiedTests=false -DskipITs
 * -Dsluice.console.screenshots=$PWD/docs/img}).
 */
@Tag("browser")
class ConsoleBrowserTest {
  private static final String TOKEN = "console-test-admin-token";
  private static final String HAMMERED_KEY = "203.0.113.7";
  private static final String RULES =
      """
      rules:
        - name: orders
          algorithm: sliding_window
          limit: 20
          window: 1s
        - name: exports
          algorithm: fixed_window
          limit: 1000
          window: 1h
        - name: invites
          limit: 5
          window: 1d
          onDenied: shadow_ban
          release: open
      """;

  /** The load: at most this many checks, at most this long, about 100 a second. */
  private static final int MAX_CHECKS = 12_000;

  private static final Duration MAX_LOAD = Duration.ofMinutes(2);

  /** Screenshots at 3/4 size: readable in the README, small in the repository. */
  private static final double SCREENSHOT_SCALE = 0.75;

  @TempDir Path dir;
  private final List<SluiceNode> nodes = new ArrayList<>();
  private final AtomicBoolean loadRunning = new AtomicBoolean(true);
  private Thread load;

  @BeforeAll
  static void chromium() {
    DebianPackages.require("chromium");
  }

  @AfterEach
  void stop() throws InterruptedException {
    loadRunning.set(false);
    if (load != null) {
      load.join(10_000);
    }
    for (SluiceNode node : nodes) {
      node.close();
    }
  }

  @Test
  void console_threeMembersUnderLoad_showsRatesKeysAndEditsRules() throws Exception {
    startGrid();
    startLoad();
    Path screenshots =
        Path.of(System.getProperty("sluice.console.screenshots", "target/console-screenshots"));
    Files.createDirectories(screenshots);
    int port = nodes.get(1).restPort(); // any node shows the whole grid

    try (HeadlessChromium page = HeadlessChromium.start(1280, 1000)) {
      page.navigate("http://127.0.0.1:" + port + "/");

      // The merged rates of the hammered rule appear, with denials, and then move.
      page.await(
          "the hammered rule's denials on the chart",
          Duration.ofSeconds(30),
          () -> denied(page) > 0);
      page.await(
          "three members in the grid table",
          Duration.ofSeconds(20),
          () ->
              page.evaluate("document.querySelectorAll('#members tbody tr').length").asInt() == 3);
      long before = decided(page);
      String chartBefore = chart(page);
      page.await("more decisions counted", Duration.ofSeconds(20), () -> decided(page) > before);
      page.await(
          "the rate chart redrawn with new data",
          Duration.ofSeconds(20),
          () -> !chart(page).equals(chartBefore));

      // Limited keys without the token: the hammered key is there, masked; its text nowhere.
      page.await(
          "the hammered rule's limited keys", Duration.ofSeconds(30), () -> !keys(page).isEmpty());
      assertThat(keys(page)).allMatch(key -> key.startsWith("key#"));
      assertThat(page.evaluate("document.body.innerText").asText()).doesNotContain(HAMMERED_KEY);

      // A wrong token is refused; the right one shows the key.
      useToken(page, "not-the-token");
      page.await(
          "the wrong token refused",
          Duration.ofSeconds(10),
          () -> text(page, "#token-state").contains("refused"));
      assertThat(keys(page)).allMatch(key -> key.startsWith("key#"));
      useToken(page, TOKEN);
      page.await(
          "the right token accepted",
          Duration.ofSeconds(10),
          () -> text(page, "#token-state").contains("accepted"));
      page.await(
          "the hammered key in clear",
          Duration.ofSeconds(10),
          () -> keys(page).contains(HAMMERED_KEY));
      Files.write(screenshots.resolve("console.png"), page.screenshot(SCREENSHOT_SCALE));

      // Try a key: a peek by default, which counts nothing.
      page.evaluate(
          "(() => { const f = document.querySelector('#try-form'); f.elements.rule.value = 'orders';"
              + " f.elements.key.value = 'someone-new';"
              + " f.querySelector('button[type=submit]').click(); })()");
      page.await(
          "the peek's answer",
          Duration.ofSeconds(10),
          () -> text(page, "#try-result").startsWith("peek (nothing counted): allowed, 20 of 20"));

      // A rule edit through the page: a refused value shows its error beside the field ...
      page.evaluate("document.querySelector('#rules button[data-edit=\"exports\"]').click()");
      setField(page, "limit", "0");
      page.evaluate("document.querySelector('#rule-form button[type=submit]').click()");
      page.await(
          "the refused limit's error beside its field",
          Duration.ofSeconds(10),
          () -> text(page, "#rule-form .error[data-field=\"limit\"]").startsWith("limit:"));
      Files.write(screenshots.resolve("console-rule-edit.png"), ruleEditor(page));
      // ... and an accepted one takes effect on every member: the next check is denied. Both fall
      // in one fixed window: a wall-clock boundary between them would start the second on a
      // fresh count, and with an hour's window that is once in some 100,000 runs, not 1,000.
      setField(page, "limit", "1");
      page.evaluate("document.querySelector('#rule-form button[type=submit]').click()");
      page.await(
          "the edited rule saved",
          Duration.ofSeconds(10),
          () -> text(page, "#rule-saved").startsWith("saved"));
      assertThat(check(nodes.get(0), "exports", "after-edit")).isEqualTo(200);
      assertThat(check(nodes.get(2), "exports", "after-edit")).isEqualTo(429);

      // The table says what a denial does; an edit through the page keeps the fields it does not
      // change: a shadow ban stays a shadow ban, an open release stays open.
      assertThat(text(page, "#rules tr[data-rule=\"invites\"]")).contains("shadow ban");
      assertThat(text(page, "#rules tr[data-rule=\"exports\"]")).contains("reject");
      page.evaluate("document.querySelector('#rules button[data-edit=\"invites\"]').click()");
      setField(page, "limit", "6");
      page.evaluate("document.querySelector('#rule-form button[type=submit]').click()");
      page.await(
          "the invites rule saved",
          Duration.ofSeconds(10),
          () -> text(page, "#rule-saved").startsWith("saved"));
      JsonNode invites = TestNodes.get(port, "/v1/rules/invites").json();
      assertThat(invites.get("limit").asLong()).isEqualTo(6);
      assertThat(invites.get("onDenied").asText()).isEqualTo("shadow_ban");
      assertThat(invites.get("release").asText()).isEqualTo("open");

      // The only errors the browser reports are the refusals this test asked for.
      assertThat(page.problems())
          .allSatisfy(
              problem ->
                  assertThat(problem.url())
                      .as("%s", problem)
                      .matches(".*/v1/(stats/limited-keys\\?top=1|rules/exports)$"));
      assertThat(page.problems()).as("the refusals the test asked for").hasSize(2);
    }
  }

  private void startGrid() throws IOException, InterruptedException {
    Path rules = Files.writeString(dir.resolve("rules.yaml"), RULES);
    String cluster = TestNodes.uniqueClusterName();
    List<Integer> memberPorts =
        List.of(TestNodes.freePort(), TestNodes.freePort(), TestNodes.freePort());
    for (int port : memberPorts) {
      Map<String, String> env =
          new HashMap<>(TestNodes.environment(cluster, port, memberPorts, rules));
      env.put("SLUICE_ADMIN_TOKEN", TOKEN);
      nodes.add(SluiceNode.start(NodeSettings.load(null, env)));
    }
    for (SluiceNode node : nodes) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (node.member().getCluster().getMembers().size() < 3) {
        assertThat(System.nanoTime()).as("the grid formed").isLessThan(deadline);
        Thread.sleep(100); // waiting for members to join
      }
    }
  }

  /** About 100 checks a second on one key, spread over the members, bounded in count and time. */
  private void startLoad() {
    AtomicInteger sent = new AtomicInteger();
    long end = System.nanoTime() + MAX_LOAD.toNanos();
    load =
        new Thread(
            () -> {
              while (loadRunning.get() && sent.get() < MAX_CHECKS && System.nanoTime() < end) {
                SluiceNode node = nodes.get(sent.getAndIncrement() % nodes.size());
                check(node, "orders", HAMMERED_KEY);
                if (sent.get() % 10 == 0) {
                  check(node, "orders", "quiet-customer-" + (sent.get() % 7));
                }
                try {
                  Thread.sleep(10);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "console-test-load");
    load.setDaemon(true);
    load.start();
  }

  private static int check(SluiceNode node, String rule, String key) {
    return TestNodes.post(
            node.restPort(), "/v1/check", "{\"rule\": \"" + rule + "\", \"key\": \"" + key + "\"}")
        .status();
  }

  private static long denied(HeadlessChromium page) {
    return page.evaluate(
            "Number((document.querySelector('.rate-row[data-rule=\"orders\"]') || {dataset: {}})"
                + ".dataset.denied || 0)")
        .asLong();
  }

  private static long decided(HeadlessChromium page) {
    return page.evaluate(
            "(() => { const r = document.querySelector('.rate-row[data-rule=\"orders\"]');"
                + " return r ? Number(r.dataset.allowed) + Number(r.dataset.denied) : 0; })()")
        .asLong();
  }

  private static String chart(HeadlessChromium page) {
    return page.evaluate(
            "document.querySelector('.rate-row[data-rule=\"orders\"] canvas').toDataURL()")
        .asText();
  }

  private static List<String> keys(HeadlessChromium page) {
    List<String> keys = new ArrayList<>();
    page.evaluate(
            "[...document.querySelectorAll('#keys .keys-rule[data-rule=\"orders\"] td.key')]"
                + ".map(td => td.textContent)")
        .forEach(key -> keys.add(key.asText()));
    return keys;
  }

  private static String text(HeadlessChromium page, String selector) {
    return page.evaluate(
            "(document.querySelector('"
                + selector.replace("'", "\\'")
                + "') || {}).textContent || ''")
        .asText();
  }

  private static void useToken(HeadlessChromium page, String token) {
    page.evaluate(
        "(() => { document.querySelector('#token').value = '"
            + token
            + "'; document.querySelector('#token-form button[type=submit]').click(); })()");
  }

  private static void setField(HeadlessChromium page, String field, String value) {
    page.evaluate(
        "document.querySelector('#rule-form').elements['" + field + "'].value = '" + value + "'");
  }

  /** The rules section with its editor open, for the docs. */
  private static byte[] ruleEditor(HeadlessChromium page) {
    page.evaluate("document.querySelector('#rules-section').scrollIntoView()");
    return page.screenshot(SCREENSHOT_SCALE);
  }
}
