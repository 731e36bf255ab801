package main

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/napkit/napkit/provisioner"
	corev1 "k8s.io/api/core/v1"
)

// SVG layout: each NodeClaim is a box whose width follows its allocatable CPU and whose height follows
// its allocatable memory, on one scale for all boxes, so sizes compare at a glance. Each pod is a bar
// stacked from the bottom, as tall as its share of the node's memory and as wide as its share of CPU.
const (
	svgPxPerCPU   = 24.0
	svgPxPerGiB   = 6.0
	svgMinSide    = 40.0
	svgGap        = 16.0
	svgRowWidth   = 1200.0
	svgLabelSpace = 30.0
)

type svgBox struct {
	x, y, w, h float64
	claim      provisioner.NodeClaim
}

func writePlanSVG(w io.Writer, plan *provisioner.Plan, pods map[string]*corev1.Pod) error {
	boxes, width, height := layoutBoxes(plan.NodeClaims)
	var b strings.Builder
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"10\">\n", width, height+svgLabelSpace)
	fmt.Fprintf(&b, "<text x=\"4\" y=\"%.0f\">%d NodeClaims, $%.4f/h (lower bound $%.4f/h), %d pending</text>\n",
		height+20, len(plan.NodeClaims), plan.Cost.PricePerHour, plan.Cost.LowerBoundPerHour, len(plan.Unschedulable))
	for _, box := range boxes {
		drawBox(&b, box, pods)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func layoutBoxes(claims []provisioner.NodeClaim) ([]svgBox, float64, float64) {
	var boxes []svgBox
	x, y, rowHeight, width := svgGap, svgGap+svgLabelSpace, 0.0, svgGap
	for _, nc := range claims {
		w := max(svgMinSide, cpuOf(nc.Allocatable)*svgPxPerCPU)
		h := max(svgMinSide, gibOf(nc.Allocatable)*svgPxPerGiB)
		if x+w > svgRowWidth && x > svgGap {
			x, y, rowHeight = svgGap, y+rowHeight+svgGap+svgLabelSpace, 0
		}
		boxes = append(boxes, svgBox{x: x, y: y, w: w, h: h, claim: nc})
		x += w + svgGap
		rowHeight = max(rowHeight, h)
		width = max(width, x)
	}
	return boxes, width, y + rowHeight + svgGap
}

func drawBox(b *strings.Builder, box svgBox, pods map[string]*corev1.Pod) {
	nc := box.claim
	fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%.1f\">%s $%.4f/h</text>\n", box.x, box.y-4, html.EscapeString(nc.InstanceType), nc.PricePerHour)
	fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"><title>%s (%s)</title></rect>\n",
		box.x, box.y, box.w, box.h, html.EscapeString(nc.Name), html.EscapeString(nc.NodePool))
	cpu, gib := cpuOf(nc.Allocatable), gibOf(nc.Allocatable)
	bottom := box.y + box.h
	for i, name := range nc.Pods {
		pod := pods[name]
		if pod == nil || cpu == 0 || gib == 0 {
			continue
		}
		requests := podRequests(pod)
		// A pod with no memory request still gets a visible bar.
		ph := max(6, box.h*gibOf(requests)/gib)
		pw := box.w * min(1, cpuOf(requests)/cpu)
		bottom -= ph
		fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"hsl(%d,60%%,70%%)\" stroke=\"white\"><title>%s</title></rect>\n",
			box.x, bottom, pw, ph, (i*47)%360, html.EscapeString(name))
	}
}

// podRequests sums the app containers' requests; it is for drawing only (the plan itself uses the
// provisioner's full request rules).
func podRequests(pod *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		for name, q := range c.Resources.Requests {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	return out
}

func cpuOf(list corev1.ResourceList) float64 {
	q := list[corev1.ResourceCPU]
	return float64(q.MilliValue()) / 1000
}

func gibOf(list corev1.ResourceList) float64 {
	q := list[corev1.ResourceMemory]
	return float64(q.Value()) / (1 << 30)
}
