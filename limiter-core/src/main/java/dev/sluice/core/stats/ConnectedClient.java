package dev.sluice.core.stats;

/**
 * A Hazelcast client connected to the grid: an SDK client, a client-mode node, a tool.
 *
 * @param uuid the client's id
 * @param name its instance name
 * @param type its kind, as Hazelcast reports it (e.g. {@code JVM})
 * @param address where it connects from
 */
public record ConnectedClient(String uuid, String name, String type, String address) {}
