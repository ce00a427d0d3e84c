#include "widget.h"
#include <string>
using namespace std;
int Widget::size(){ return items_.size(); }
void Widget::add(string s) {
  items_.push_back(s);   
}
