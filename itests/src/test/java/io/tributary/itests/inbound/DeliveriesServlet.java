package io.tributary.itests.inbound;

import java.io.IOException;

import jakarta.ejb.EJB;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code GET /deliveries?queue=q}: the deliveries to {@code q}'s MDB so far, one per line ({@link Deliveries}). */
@WebServlet("/deliveries")
public class DeliveriesServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @EJB
    private Deliveries deliveries;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        for (String line : deliveries.of(request.getParameter("queue"))) {
            response.getWriter().append(line).append('\n');
        }
    }
}
