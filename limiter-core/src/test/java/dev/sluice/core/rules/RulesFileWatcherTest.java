package dev.sluice.core.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.rules.RulesFileWatcher.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hot reload as a timeline of edits, each followed by one poll. */
class RulesFileWatcherTest {
  private static final String LOGIN_5 = "rules:\n  - name: login\n    limit: 5\n    window: 1m\n";
  private static final String LOGIN_7_AND_API =
      "rules:\n  - name: login\n    limit: 7\n    window: 1m\n"
          + "  - name: api\n    algorithm: gcra\n    limit: 100\n    window: 1s\n    burst: 20\n";

  @TempDir Path dir;
  private final InMemoryRuleStore store = new InMemoryRuleStore();

  @Test
  void loadInitial_putsTheFilesRules() throws IOException {
    RulesFileWatcher watcher = watcher(LOGIN_5);

    assertThat(watcher.loadInitial()).extracting(Rule::name).containsExactly("login");
    assertThat(store.get("login").policy().limit()).isEqualTo(5);
  }

  @Test
  void loadInitial_brokenFile_failsNamingFileLineAndField() throws IOException {
    RulesFileWatcher watcher = watcher("rules:\n  - name: login\n    limit: 0\n    window: 1m\n");

    assertThatThrownBy(watcher::loadInitial)
        .isInstanceOf(ConfigFileException.class)
        .hasMessageContaining("rules.yaml:3")
        .hasMessageContaining("limit");
    assertThat(store.all()).isEmpty();
  }

  @Test
  void poll_timelineOfEdits_appliesValidOnesAndKeepsRulesThroughBrokenOnes() throws IOException {
    RulesFileWatcher watcher = watcher(LOGIN_5);
    watcher.loadInitial();
    assertThat(watcher.poll()).isEqualTo(Outcome.UNCHANGED);

    // Edit 1: login 5 -> 7, api added.
    edit(LOGIN_7_AND_API);
    assertThat(watcher.poll()).isEqualTo(Outcome.APPLIED);
    assertThat(store.get("login").policy().limit()).isEqualTo(7);
    assertThat(store.get("api").policy().burst()).isEqualTo(20);

    // Edit 2: broken (a window without unit): rejected once, rules unchanged, not re-reported.
    edit(LOGIN_7_AND_API.replace("window: 1s", "window: 1"));
    assertThat(watcher.poll()).isEqualTo(Outcome.REJECTED);
    assertThat(watcher.poll()).isEqualTo(Outcome.UNCHANGED);
    assertThat(store.get("login").policy().limit()).isEqualTo(7);
    assertThat(store.find("api")).isPresent();

    // Edit 3: api dropped from the file: removed from the store.
    edit(LOGIN_5);
    assertThat(watcher.poll()).isEqualTo(Outcome.APPLIED);
    assertThat(store.get("login").policy().limit()).isEqualTo(5);
    assertThat(store.find("api")).isEmpty();
  }

  @Test
  void poll_countsAppliedAndRejectedVersions_notUnchangedPolls() throws IOException {
    RulesFileWatcher watcher = watcher(LOGIN_5);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    watcher.bindTo(registry);
    watcher.loadInitial();

    edit(LOGIN_7_AND_API);
    watcher.poll();
    edit(LOGIN_7_AND_API.replace("window: 1s", "window: 1"));
    watcher.poll();
    watcher.poll();
    Files.delete(dir.resolve("rules.yaml"));
    watcher.poll();

    assertThat(reloads(registry, "applied")).isEqualTo(1);
    assertThat(reloads(registry, "rejected"))
        .as("the broken edit, then the deleted file")
        .isEqualTo(2);
  }

  private static double reloads(SimpleMeterRegistry registry, String outcome) {
    return registry.get(RulesFileWatcher.RELOADS).tag("outcome", outcome).functionCounter().count();
  }

  @Test
  void poll_apiDefinedRule_survivesReloads() throws IOException {
    RulesFileWatcher watcher = watcher(LOGIN_5);
    watcher.loadInitial();
    store.put(new Rule("from-api", Policy.of(3, Duration.ofSeconds(1))));

    edit(LOGIN_7_AND_API);
    watcher.poll();
    edit(LOGIN_5);
    watcher.poll();

    assertThat(store.find("from-api")).isPresent();
  }

  @Test
  void poll_fileRuleChangedThroughApi_fileWinsWhenThatRuleChangesInTheFile() throws IOException {
    RulesFileWatcher watcher = watcher(LOGIN_5);
    watcher.loadInitial();
    store.put(new Rule("login", Policy.of(50, Duration.ofMinutes(1))));

    edit(LOGIN_7_AND_API);
    watcher.poll();

    assertThat(store.get("login").policy().limit()).isEqualTo(7);
  }

  @Test
  void poll_fileRuleChangedThroughApi_survivesEditsOfOtherRules() throws IOException {
    String login5AndApi =
        LOGIN_5 + "  - name: api\n    algorithm: gcra\n    limit: 100\n    window: 1s\n";
    RulesFileWatcher watcher = watcher(login5AndApi);
    watcher.loadInitial();
    // An operator raises login during an incident; later someone edits only api in the file.
    store.put(new Rule("login", Policy.of(50, Duration.ofMinutes(1))));

    edit(login5AndApi.replace("limit: 100", "limit: 200"));
    assertThat(watcher.poll()).isEqualTo(Outcome.APPLIED);

    assertThat(store.get("api").policy().limit()).isEqualTo(200);
    assertThat(store.get("login").policy().limit())
        .as("login did not change in the file, so the API's change stays")
        .isEqualTo(50);
  }

  @Test
  void poll_atomicRenameLikeAConfigMapUpdate_isSeen() throws IOException {
    RulesFileWatcher watcher = watcher(LOGIN_5);
    watcher.loadInitial();

    Path staged = dir.resolve("rules.yaml.tmp");
    Files.writeString(staged, LOGIN_7_AND_API);
    Files.move(staged, dir.resolve("rules.yaml"), StandardCopyOption.ATOMIC_MOVE);

    assertThat(watcher.poll()).isEqualTo(Outcome.APPLIED);
    assertThat(store.get("login").policy().limit()).isEqualTo(7);
  }

  @Test
  void poll_fileDeleted_keepsRulesAndReportsOnce() throws IOException {
    RulesFileWatcher watcher = watcher(LOGIN_5);
    watcher.loadInitial();

    Files.delete(dir.resolve("rules.yaml"));

    assertThat(watcher.poll()).isEqualTo(Outcome.REJECTED);
    assertThat(watcher.poll()).isEqualTo(Outcome.UNCHANGED);
    assertThat(store.find("login")).isPresent();
  }

  @Test
  void start_pollsOnItsOwn() throws Exception {
    RulesFileWatcher watcher = new RulesFileWatcher(write(LOGIN_5), store, Duration.ofMillis(100));
    watcher.loadInitial();
    watcher.start();
    try {
      edit(LOGIN_7_AND_API);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (store.find("api").isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20); // waiting for the poller thread, not for limiter time
      }
      assertThat(store.find("api")).isPresent();
    } finally {
      watcher.close();
    }
  }

  private RulesFileWatcher watcher(String content) throws IOException {
    return new RulesFileWatcher(write(content), store, Duration.ofSeconds(1));
  }

  private Path write(String content) throws IOException {
    return Files.writeString(dir.resolve("rules.yaml"), content);
  }

  private void edit(String content) throws IOException {
    write(content);
  }
}
