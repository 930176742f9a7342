package dev.sendlog.service.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.service.auth.Role;

/**
 * Who did it, as a caller is shown it. Support and admin see the actor as recorded: the process
 * ({@code worker-node7-6022}) or the person ({@code admin:ops-admin}), which they need to trace a fault. A client sees
 * only the role ({@code worker}, {@code poller}, {@code support}): host names, process ids and staff key names say how
 * we run, not what happened to its message.
 */
public final class ActorNames {
    private ActorNames() {}

    public static String shown(String actor, Role caller) {
        return caller.seesAllTenants() ? actor : role(actor);
    }

    /**
     * The role part of a recorded actor: {@code client} for a client's own key, {@code support} for any staff key
     * (support or admin), else the name before its instance ({@code poller-host-pid} is {@code poller}).
     */
    static String role(String actor) {
        int colon = actor.indexOf(':');
        if (colon >= 0) {
            return actor.substring(0, colon).equals("client") ? "client" : "support";
        }
        int dash = actor.indexOf('-');
        return dash > 0 ? actor.substring(0, dash) : actor;
    }

    /**
     * An event's data as a caller is shown it: for a client, the worker a claim names and the actors inside a snapshot
     * are roles too.
     */
    public static JsonNode shownData(String type, JsonNode data, Role caller) {
        if (caller.seesAllTenants() || !(data instanceof ObjectNode object)) {
            return data;
        }
        if (type.equals("CLAIMED") && object.path("worker").isTextual()) {
            object.put("worker", role(object.get("worker").textValue()));
        }
        if (type.equals("COMPACTED")) {
            for (JsonNode inner : object.path("events")) {
                if (inner instanceof ObjectNode item) {
                    if (item.path("actor").isTextual()) {
                        item.put("actor", role(item.get("actor").textValue()));
                    }
                    shownData(item.path("type").asText(), item.path("data"), caller);
                }
            }
        }
        return data;
    }
}
