package dev.sendlog.service.accept;

import dev.sendlog.service.config.RouteSettings;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which gateway a message goes to (issue 29; API.md, "Gateways, routes and limits"): the one it names, else the first
 * gateway of the first route matching its tenant and recipient, else the default gateway. A message a route with more
 * than one gateway chose is {@code routed}: when its gateway certainly did not take it, it passes to the gateway after
 * that one on the same route ({@link #next}). Forward only: the last gateway of a route keeps the message through its
 * retries. The routes are read from the configuration of the process that decides, so a route changed while a message
 * waits applies to its next failover.
 */
public final class Routes {
    private record Route(String prefix, String tenant, List<String> gateways) {
        boolean matches(String tenantOf, String recipient) {
            return (tenant == null || tenant.equals(tenantOf)) && (prefix == null || recipient.startsWith(prefix));
        }
    }

    private final List<Route> routes;
    private final String defaultGateway;

    /** Refuses a route without gateways, naming a gateway not configured, or naming one twice. */
    public Routes(List<RouteSettings> settings, Set<String> gateways, String defaultGateway) {
        List<Route> built = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < settings.size(); i++) {
            RouteSettings r = settings.get(i);
            if (r.gateways == null || r.gateways.isEmpty()) {
                problems.add("routes[" + i + "].gateways: names no gateway");
                continue;
            }
            Set<String> seen = new HashSet<>();
            for (String g : r.gateways) {
                if (!gateways.contains(g)) {
                    problems.add("routes[" + i + "].gateways: '" + g + "' is not a configured gateway " + gateways);
                } else if (!seen.add(g)) {
                    problems.add("routes[" + i + "].gateways: '" + g + "' is named twice");
                }
            }
            built.add(new Route(blankToNull(r.prefix), blankToNull(r.tenant), List.copyOf(r.gateways)));
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("invalid routes: " + String.join("; ", problems));
        }
        this.routes = List.copyOf(built);
        this.defaultGateway = defaultGateway;
    }

    /** No routes: every message goes to the gateway it names or to {@code defaultGateway}. */
    public static Routes none(String defaultGateway) {
        return new Routes(List.of(), Set.of(defaultGateway), defaultGateway);
    }

    /** The drafts with their gateways chosen: the one each names, its route's first, or the default. */
    public List<MessageDraft> apply(String tenant, List<MessageDraft> drafts) {
        List<MessageDraft> out = new ArrayList<>(drafts.size());
        for (MessageDraft d : drafts) {
            if (d.gateway() != null) {
                out.add(d);
                continue;
            }
            List<String> route = route(tenant, d.to());
            out.add(
                    route == null
                            ? d.withGateway(defaultGateway, false)
                            : d.withGateway(route.getFirst(), route.size() > 1));
        }
        return out;
    }

    /**
     * The gateway after {@code current} on the route of a routed message of {@code tenant} to {@code recipient}, or null
     * when {@code current} is its route's last or not on it (the routes changed since).
     */
    public String next(String tenant, String recipient, String current) {
        List<String> route = route(tenant, recipient);
        if (route == null) {
            return null;
        }
        int at = route.indexOf(current);
        return at < 0 || at + 1 >= route.size() ? null : route.get(at + 1);
    }

    private List<String> route(String tenant, String recipient) {
        for (Route r : routes) {
            if (r.matches(tenant, recipient)) {
                return r.gateways();
            }
        }
        return null;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
