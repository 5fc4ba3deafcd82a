package io.tributary.example.web;

import java.time.Instant;
import java.time.format.DateTimeParseException;

import io.tributary.example.OrderReplay;
import io.tributary.example.OrderReport;
import io.tributary.example.ReplayFailedException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code GET /api/reports?from=<ISO-8601 instant>&to=<ISO-8601 instant>}: the orders sent in that range (both ends
 * included), read back from the log by {@link OrderReplay}, as a JSON {@link OrderReport}. 400 (text) when a
 * parameter is missing, is not an instant such as {@code 2026-11-30T12:00:00Z}, or {@code from} is after
 * {@code to}; 503 (text) when the range could not be read (the cluster is unreachable, or the range is too large
 * for one report: the message says which).
 *
 * <p>Request-scoped, as {@link OrdersResource}.
 */
@Path("/reports")
@RequestScoped
public class ReportsResource {

    @EJB
    private OrderReplay replay;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response report(@QueryParam("from") String fromText, @QueryParam("to") String toText) {
        Instant from;
        Instant to;
        try {
            from = instant("from", fromText);
            to = instant("to", toText);
        } catch (IllegalArgumentException e) {
            return OrdersResource.badRequest(e.getMessage());
        }
        if (from.isAfter(to)) {
            return OrdersResource.badRequest("from (" + from + ") is after to (" + to + ")");
        }
        try {
            return Response.ok(replay.report(from, to)).build();
        } catch (ReplayFailedException e) {
            return Response.status(Response.Status.SERVICE_UNAVAILABLE).type(MediaType.TEXT_PLAIN)
                    .entity(e.getMessage() + "\n").build();
        }
    }

    private static Instant instant(String name, String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("the query parameter " + name + " is missing: ?from=<ISO-8601 instant>"
                    + "&to=<ISO-8601 instant>, such as 2026-11-30T12:00:00Z");
        }
        try {
            return Instant.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + "=" + text + " is not an ISO-8601 instant such as "
                    + "2026-11-30T12:00:00Z or 2026-11-30T12:00:00.250Z");
        }
    }
}
