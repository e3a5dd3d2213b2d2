package dev.sluice.rest;

/**
 * The node that answered a stats request.
 *
 * @param name its name (the member's address, or the client-mode node's REST address)
 * @param mode {@code member}, {@code client} or {@code local}
 */
public record NodeBody(String name, String mode) {}
