package dev.sluice.core.stats;

import java.util.List;

/**
 * One grid member as it reports itself, or as the cluster lists it when it did not answer in time.
 *
 * @param address host:port of the member
 * @param uuid its id
 * @param answered whether it answered; the other fields are 0 or empty when not
 * @param keysOwned limiter entries whose primary copy it holds
 * @param partitionsOwned partitions it owns
 * @param safe whether every partition it owns has its backups in place
 * @param migrationsCompleted partition migrations this member saw complete since it started
 * @param migrationsFailed partition migrations it saw fail
 * @param clients Hazelcast clients connected to it
 */
public record MemberFacts(
    String address,
    String uuid,
    boolean answered,
    long keysOwned,
    int partitionsOwned,
    boolean safe,
    long migrationsCompleted,
    long migrationsFailed,
    List<ConnectedClient> clients) {

  public MemberFacts {
    clients = List.copyOf(clients);
  }

  /** A member listed by the cluster that did not answer. */
  public static MemberFacts silent(String address, String uuid) {
    return new MemberFacts(address, uuid, false, 0, 0, false, 0, 0, List.of());
  }
}
