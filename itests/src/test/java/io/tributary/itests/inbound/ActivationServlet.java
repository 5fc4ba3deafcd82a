package io.tributary.itests.inbound;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code GET /activation?queue=q}: the JMX bean of the adapter's activation that delivers {@code q}
 * ({@code io.tributary.ra:type=activation,...}), as read inside the server from the platform MBean server, one
 * {@code Attribute=value} per line; 404 when no activation delivers {@code q}.
 */
@WebServlet("/activation")
public class ActivationServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final List<String> ATTRIBUTES = List.of("State", "Deliveries", "Failures", "Redeliveries",
            "DeadLettered", "InFlight", "ConsumerLag", "LastFailure");

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String queue = request.getParameter("queue");
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            for (ObjectName name : server.queryNames(new ObjectName("io.tributary.ra:type=activation,*"), null)) {
                String subscription = (String) server.getAttribute(name, "Subscription");
                if (subscription.matches(".*(^|\\s)" + java.util.regex.Pattern.quote(queue) + "(\\s|$).*")) {
                    response.setContentType("text/plain;charset=UTF-8");
                    for (String attribute : ATTRIBUTES) {
                        response.getWriter().append(attribute).append('=')
                                .append(String.valueOf(server.getAttribute(name, attribute))).append('\n');
                    }
                    return;
                }
            }
        } catch (JMException e) {
            throw new IOException("Reading the activation beans: " + e, e);
        }
        response.sendError(HttpServletResponse.SC_NOT_FOUND, "no activation delivers " + queue);
    }
}
